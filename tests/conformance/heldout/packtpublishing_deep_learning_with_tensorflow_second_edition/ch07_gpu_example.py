# Source: https://github.com/PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition/blob/b22c2327ef6255bc0f273ccf22376d5420c9b8fd/Chapter07/gpu/gpu_example.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow; matrix size 10000 x 10000 -> 1000 x 1000 (the two random inputs and their placeholders)
import numpy as np
import daskflow as tf
import datetime

n = 10

A = np.random.rand(1000, 1000).astype('float32')
B = np.random.rand(1000, 1000).astype('float32')


c1 = []
c2 = []

def matpow(M, n):
    if n == 1: 
        return M
    else:
        return tf.matmul(M, matpow(M, n-1))

with tf.device('/gpu:0'):
    a = tf.placeholder(tf.float32, [1000, 1000])
    b = tf.placeholder(tf.float32, [1000, 1000])
    c1.append(matpow(a, n))
    c1.append(matpow(b, n))

with tf.device('/cpu:0'):
  sum = tf.add_n(c1) #Addition of all elements in c1, i.e. A^n + B^n

t1_1 = datetime.datetime.now()
#sess = tf.Session(config=tf.ConfigProto(allow_soft_placement=True, log_device_placement=True))
"""
with tf.Session(config=tf.ConfigProto\
              (log_device_placement=log_device_placement)) as sess:
     sess.run(sum, {a:A, b:B})
"""     
with tf.Session(config=tf.ConfigProto\
                (allow_soft_placement=True,\
                 log_device_placement=True)) as sess:
    sess.run(sum, {a:A, b:B})
t2_1 = datetime.datetime.now()
print("GPU computation time: " + str(t2_1-t1_1))