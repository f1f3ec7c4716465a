# Source: https://github.com/BinRoot/TensorFlow-Book/blob/7e8db4fec4333a3ada4954ff7f264328e931a22f/ch02_basics/Concept02_evaluating_ops.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order
import daskflow as tf

x = tf.constant([[1, 2]])

neg_x = tf.negative(x)

print(neg_x)

with tf.Session() as sess:
    result = sess.run(neg_x)
    print(result)
