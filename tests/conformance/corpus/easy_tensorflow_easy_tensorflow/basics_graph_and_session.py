# Source: https://github.com/easy-tensorflow/easy-tensorflow/blob/4413f921ef7e1ec8de6b860c2d0208ace0f868d7/1_TensorFlow_Basics/Tutorials/1_Graph_and_Session.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook: code cells taken in order into a .py (each dedented, as IPython runs it)
import daskflow as tf
print(tf.__version__)

# if using tensorflow 1.x, disable eager execution
if tf.__version__.startswith("1."):
    tf.compat.v1.disable_eager_execution()
# if using tensorflow 2.x, disable v2 behavior
else:
    import daskflow.compat.v1 as tf
    tf.disable_v2_behavior()

a = 2
b = 3
c = tf.add(a, b, name='Add')
print(c)

sess = tf.Session()
print(sess.run(c))
sess.close()

with tf.Session() as sess:
    print(sess.run(c))

x = 2
y = 3
add_op = tf.add(x, y, name='Add')
mul_op = tf.multiply(x, y, name='Multiply')
pow_op = tf.pow(add_op, mul_op, name='Power')
useless_op = tf.multiply(x, add_op, name='Useless')

with tf.Session() as sess:
    pow_out, useless_out = sess.run([pow_op, useless_op])
