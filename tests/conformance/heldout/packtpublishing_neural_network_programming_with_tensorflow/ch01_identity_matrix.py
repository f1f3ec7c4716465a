# Source: https://github.com/PacktPublishing/Neural-Network-Programming-with-TensorFlow/blob/27e315354809a2342ed1477e69980d91ef8e331c/Chapter01/identity-matrix.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf

identity = tf.eye(3, 3)

with tf.Session() as sess:
    print(sess.run(identity))