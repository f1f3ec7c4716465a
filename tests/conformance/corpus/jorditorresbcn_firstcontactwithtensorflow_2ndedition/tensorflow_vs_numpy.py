# Source: https://github.com/jorditorresBCN/FirstContactWithTensorFlow-2ndEdition/blob/6c5894f17fe4d306262c8dadf3bb81787e90b500/TensorFlowVsNumpy.py
# Licence: Apache-2.0
# Changed: imports tensorflow -> daskflow; Python 2 -> 3: print statements -> print() calls (the program cannot run otherwise)
import daskflow as tf
tf.InteractiveSession()
a = tf.zeros((2,2))
b = tf.ones((2,2))
print(a.eval())
print(b .eval())
print(tf.reduce_sum(b, reduction_indices=1).eval())
print(a.get_shape())
print(tf.reshape(a, (1, 4)).eval())
