# Source: https://github.com/PacktPublishing/Deep-Learning-with-TensorFlow-Second-Edition/blob/b22c2327ef6255bc0f273ccf22376d5420c9b8fd/Chapter02/TensorFlow_basic_operations/SampleMul.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf
import os
from daskflow.python.framework import ops
import warnings

warnings.filterwarnings("ignore")
os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'
ops.reset_default_graph()

x = tf.constant(8)
y = tf.constant(9)
z = tf.multiply(x, y)

sess = tf.Session()
out_z = sess.run(z)

print('The multiplication of x and y: %d' % out_z)
