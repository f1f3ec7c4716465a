# Source: https://github.com/jorditorresBCN/FirstContactWithTensorFlow-2ndEdition/blob/6c5894f17fe4d306262c8dadf3bb81787e90b500/YourFirstTensorFlowProgram.py
# Licence: Apache-2.0
# Changed: imports tensorflow -> daskflow
import daskflow as tf

a = tf.placeholder("float")
b = tf.placeholder("float")

y = tf.multiply(a, b)

sess = tf.Session()

print(sess.run(y, feed_dict={a: 3, b: 3}))
