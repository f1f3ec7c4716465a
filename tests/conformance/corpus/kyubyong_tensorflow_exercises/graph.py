# Source: https://github.com/Kyubyong/tensorflow-exercises/blob/04dc9787de49456855cbb7c0d04596007cce8cc0/Graph_Solutions.ipynb
# Licence: NOASSERTION
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order (IPython magics dropped)
from __future__ import print_function
import numpy as np
import daskflow as tf

from datetime import date
date.today()

author = "kyubyong. https://github.com/Kyubyong/tensorflow-exercises"

tf.__version__

np.__version__

# Q1. Create a graph
g = tf.Graph()

with g.as_default():
    # Define inputs
    with tf.name_scope("inputs"):
        a = tf.constant(2, tf.int32, name="a")
        b = tf.constant(3, tf.int32, name="b")

    # Ops
    with tf.name_scope("ops"):
        c = tf.multiply(a, b, name="c")
        d = tf.add(a, b, name="d")
        e = tf.subtract(c, d, name="e")

# Q2. Start a session
sess = tf.Session(graph=g)

# Q3. Fetch c, d, e
_c, _d, _e = sess.run([c, d, e])
print("c =", _c)
print("d =", _d)
print("e =", _e)

# Close the session
sess.close()

tf.reset_default_graph()

# Define inputs
a = tf.Variable(tf.random_uniform([]))
b_pl = tf.placeholder(tf.float32, [None])

# Ops
c = a * b_pl
d = a + b_pl
e = tf.reduce_sum(c)
f = tf.reduce_mean(d)
g = e - f

# initialize variable(s)
init = tf.global_variables_initializer()

# Update variable
update_op = tf.assign(a, a + g)

# Q4. Create a (summary) writer to `asset`
writer = tf.summary.FileWriter('asset', tf.get_default_graph())

#Q5. Add `a` to summary.scalar
tf.summary.scalar("a", a)

#Q6. Add `c` and `d` to summary.histogram
tf.summary.histogram("c", c)
tf.summary.histogram("d", d)

#Q7. Merge all summaries.
summaries = tf.summary.merge_all()

# Start a session
sess = tf.Session()

# Initialize Variable(s)
sess.run(init)

# Fetch the value of c, d, and e.
for step in range(5):
    _b = np.arange(10, dtype=np.float32)
    _, summaries_proto = sess.run([update_op, summaries], {b_pl:_b})
    
    # Q8. Attach summaries_proto to TensorBoard.
    writer.add_summary(summaries_proto, global_step=step)
    
# Close the session
sess.close()


