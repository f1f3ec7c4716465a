# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Control_Flow_Solutions.ipynb
# Licence: NOASSERTION
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order (IPython magics dropped)
from __future__ import print_function
import daskflow as tf
import numpy as np

from datetime import date
date.today()

author = "kyubyong. https://github.com/Kyubyong/tensorflow-exercises"

tf.__version__

np.__version__

sess = tf.InteractiveSession()

x = tf.random_uniform([])
y = tf.random_uniform([])
out = tf.cond(x < y, lambda: x + y,  lambda: x - y)
print(out.eval())

# This is equalvant to the following.
_x = np.random.uniform()
_y = np.random.uniform()
_out = np.where(_x < _y, _x + _y, _x - _y)
print(_out)

x = tf.random_uniform([], minval=0, maxval=5, dtype=tf.int32)
y = tf.random_uniform([], minval=0, maxval=5, dtype=tf.int32)
out = tf.case({x < y: lambda: x + y, x > y: lambda: x - y}, default=lambda: tf.constant(0), exclusive=True)
print(out.eval())

# Compare
_x = np.random.randint(0, 5)
_y = np.random.randint(0, 5)
_out = np.select([_x > _y, _x < _y, _x == _y], [_x + _y, _x - _y, 0])
print(_out)

_X = np.array([[-1, -2, -3], [0, 1, 2]])
X = tf.constant(_X)
Y = tf.zeros_like(X)
out = tf.equal(X, Y)
print(out.eval())

_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.equal(_X, _Y))

x = tf.constant([True, False, False], tf.bool)
y = tf.constant([True, True, False], tf.bool)
out1 = tf.logical_and(x, y)
out2 = tf.logical_or(x, y)
out3 = tf.logical_xor(x, y)
print(out1.eval(), out2.eval(), out3.eval())

x = tf.constant([True, False, False], tf.bool)
out = tf.logical_not(x)
print(out.eval())

X = tf.constant( [[-1, -2, -3], [0, 1, 2]] )
Y = tf.zeros_like(X)
out = tf.not_equal(X, Y)
print(out.eval())
_X = np.array([[-1, -2, -3], [0, 1, 2]])
_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.not_equal(_X, _Y))
# tf.not_equal == np.not_equal

X = tf.constant( [[-1, -2, -3], [0, 1, 2]] )
Y = tf.zeros_like(X)
out = tf.greater_equal(X, Y)
out2 = tf.logical_not(tf.less(X, Y))
assert np.allclose(out.eval(), out2.eval())
print(out.eval())
_X = np.array([[-1, -2, -3], [0, 1, 2]])
_Y = np.zeros_like(_X)
assert np.allclose(out.eval(), np.greater_equal(_X, _Y))
# tf.great_equal == np.greater_equal

X = tf.constant([[1, 2], [3, 4]])
Y = tf.constant([[5, 6], [7, 8]])
Z = tf.constant([[True, False], [False, True]], tf.bool)
out = tf.where(Z, X, Y)
print(out.eval())


