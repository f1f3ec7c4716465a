# Source: https://github.com/PacktPublishing/Neural-Network-Programming-with-TensorFlow/blob/27e315354809a2342ed1477e69980d91ef8e331c/Chapter01/vector-norm.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf

vector = tf.constant([[4,5,6]], dtype=tf.float32)

eucNorm = tf.norm(vector, ord="euclidean")

with tf.Session() as sess:
    print(sess.run(eucNorm))