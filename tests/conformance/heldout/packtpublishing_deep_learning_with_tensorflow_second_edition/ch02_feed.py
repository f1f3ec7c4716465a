# Source: https://github.com/PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition/blob/b22c2327ef6255bc0f273ccf22376d5420c9b8fd/Chapter02/TensorFlow_basic_operations/Feed.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf
import numpy as np

a = 3
b = 2
x = tf.placeholder(tf.float32,shape=(a,b))
y = tf.add(x,x)

data = np.random.rand(a,b)
sess = tf.Session()
print(sess.run(y,feed_dict={x:data}))

sess.close()# close the session

