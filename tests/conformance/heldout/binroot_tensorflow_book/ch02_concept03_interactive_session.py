# Source: https://github.com/BinRoot/TensorFlow-Book/blob/7e8db4fec4333a3ada4954ff7f264328e931a22f/ch02_basics/Concept03_interactive_session.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order
import daskflow as tf
sess = tf.InteractiveSession()

x = tf.constant([[1., 2.]])
neg_op = tf.negative(x)

result = neg_op.eval()

print(result)

sess.close()
