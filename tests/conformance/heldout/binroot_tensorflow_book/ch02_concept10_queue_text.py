# Source: https://github.com/BinRoot/TensorFlow-Book/blob/7e8db4fec4333a3ada4954ff7f264328e931a22f/ch02_basics/Concept10_queue_text.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order
import daskflow as tf

filename_queue = tf.train.string_input_producer(["big.txt"])

reader = tf.TextLineReader()
key_op, value_op = reader.read(filename_queue)

sess = tf.InteractiveSession()
coord = tf.train.Coordinator()
threads = tf.train.start_queue_runners(coord=coord)

for i in range(100):
    key, value = sess.run([key_op, value_op])
    print(key, value)
