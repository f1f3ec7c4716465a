# Source: https://github.com/nfmcclure/tensorflow_cookbook/blob/d998edfe7df11177df2ea17814be7bd6193788c9/01_Introduction/03_Using_Variables_and_Placeholders/03_placeholders.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow; log dir '/tmp/variable_logs' -> 'variable_logs'
# Placeholders
#----------------------------------
#
# This function introduces how to 
# use placeholders in TensorFlow

import numpy as np
import daskflow as tf
from daskflow.python.framework import ops
ops.reset_default_graph()

# Using Placeholders
sess = tf.Session()

x = tf.placeholder(tf.float32, shape=(4, 4))
y = tf.identity(x)

rand_array = np.random.rand(4, 4)

merged = tf.summary.merge_all()

writer = tf.summary.FileWriter("variable_logs", sess.graph)

print(sess.run(y, feed_dict={x: rand_array}))
