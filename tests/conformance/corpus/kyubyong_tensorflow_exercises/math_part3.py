# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Math_Part3_Solutions.ipynb
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

_X = np.array([[1,2,3], [4,5,6]])
X = tf.convert_to_tensor(_X)

out = tf.cumsum(X, axis=1)
print(out.eval())

_out = np.cumsum(_X, axis=1)
assert np.array_equal(out.eval(), _out) # tf.cumsum == np.cumsum

_X = np.array([[1,2,3], [4,5,6]])
X = tf.convert_to_tensor(_X)

out = tf.cumprod(X, axis=1)
print(out.eval())

_out = np.cumprod(_X, axis=1)
assert np.array_equal(out.eval(), _out) # tf.cumprod == np.cumprod

_X = np.array(
    [[1,2,3,4], 
     [-1,-2,-3,-4], 
     [-10,-20,-30,-40],
     [10,20,30,40]])
X = tf.convert_to_tensor(_X)

out = tf.segment_sum(X, [0, 0, 1, 1])
print(out.eval())

_X = np.array(
    [[1,2,3,4], 
     [1,1/2,1/3,1/4], 
     [1,2,3,4],
     [-1,-1,-1,-1]])
X = tf.convert_to_tensor(_X)

out = tf.segment_prod(X, [0, 0, 1, 1])
print(out.eval())

_X = np.array(
    [[1,4,5,7], 
     [2,3,6,8], 
     [1,2,3,4],
     [-1,-2,-3,-4]])
X = tf.convert_to_tensor(_X)

out = tf.segment_min(X, [0, 0, 1, 1])
print(out.eval())

_X = np.array(
    [[1,4,5,7], 
     [2,3,6,8], 
     [1,2,3,4],
     [-1,-2,-3,-4]])
X = tf.convert_to_tensor(_X)

out = tf.segment_max(X, [0, 0, 1, 1])
print(out.eval())

_X = np.array(
    [[1,2,3,4], 
     [5,6,7,8], 
     [-1,-2,-3,-4],
     [-5,-6,-7,-8]])
X = tf.convert_to_tensor(_X)

out = tf.segment_mean(X, [0, 0, 1, 1])
print(out.eval())

_X = np.array(
    [[1,2,3,4], 
     [-1,-2,-3,-4], 
     [-10,-20,-30,-40],
     [10,20,30,40]])
X = tf.convert_to_tensor(_X)

out = tf.unsorted_segment_sum(X, [1, 0, 1, 0], 2)
print(out.eval())

_X = np.random.permutation(10).reshape((2, 5))
print("_X =", _X)
X = tf.convert_to_tensor(_X)

out1 = tf.argmax(X, axis=1)
out2 = tf.argmin(X, axis=1)
print(out1.eval())
print(out2.eval())

_out1 = np.argmax(_X, axis=1)
_out2 = np.argmin(_X, axis=1)
assert np.allclose(out1.eval(), _out1)
assert np.allclose(out2.eval(), _out2)
# tf.argmax == np.argmax
# tf.argmin == np.argmin

_x = np.array([0, 1, 2, 5, 0])
_y = np.array([0, 1, 4])
x = tf.convert_to_tensor(_x)
y = tf.convert_to_tensor(_y)

out = tf.setdiff1d(x, y)[0]
print(out.eval())

_out = np.setdiff1d(_x, _y)
assert np.array_equal(out.eval(), _out)
# Note that tf.setdiff1d returns a tuple of (out, idx),
# whereas np.setdiff1d returns out only.

_X = np.arange(1, 10).reshape(3, 3)
X = tf.convert_to_tensor(_X)

out = tf.where(X < 4, X, X*10)
print(out.eval())

_out = np.where(_X < 4, _X, _X*10)
assert np.array_equal(out.eval(), _out) # tf.where == np.where

_x = np.array([1, 2, 6, 4, 2, 3, 2])
x = tf.convert_to_tensor(_x)

out, indices = tf.unique(x)
print(out.eval())
print(indices.eval())

_out, _indices = np.unique(_x, return_inverse=True)
print("sorted unique elements =", _out)
print("indices =", _indices)

# Note that tf.unique keeps the original order, whereas
# np.unique sorts the unique members.

# Check the documentation on tf.SparseTensor if you are not
# comfortable with sparse tensor.
hypothesis = tf.SparseTensor(
    [[0, 0],[0, 1],[0, 2],[0, 4]],
    ["a", "b", "c", "a"],
    (1, 5)) 
# Note that this is equivalent to the dense tensor.
# [["a", "b", "c", 0, "a"]]

truth = tf.SparseTensor(
    [[0, 0],[0, 2],[0, 4]],
    ["a", "c", "b"],
    (1, 6))
# This is equivalent to the dense tensor.
# [["a", 0, "c", 0, "b", 0]]

out1 = tf.edit_distance(hypothesis, truth, normalize=False)
out2 = tf.edit_distance(hypothesis, truth, normalize=True)
print(out1.eval()) # 2 <- one deletion ("b") and one substitution ("a" to "b")
print(out2.eval()) # 0.6666 <- 2 / 6


