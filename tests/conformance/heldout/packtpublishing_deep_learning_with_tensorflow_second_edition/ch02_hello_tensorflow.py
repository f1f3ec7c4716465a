# Source: https://github.com/PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition/blob/b22c2327ef6255bc0f273ccf22376d5420c9b8fd/Chapter02/TensorFlow_basic_operations/HelloTensorFlow.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf
import os
from daskflow.python.framework import ops
import warnings

warnings.filterwarnings("ignore")
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'
ops.reset_default_graph()

a = tf.placeholder("float")
b = tf.placeholder("float")

y = tf.multiply(a, b)
sess = tf.Session()
print(sess.run(y, feed_dict={a: 3, b: 5}))
