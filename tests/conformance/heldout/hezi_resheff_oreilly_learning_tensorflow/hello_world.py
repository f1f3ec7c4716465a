# Source: https://github.com/Hezi-Resheff/Oreilly-Learning-TensorFlow/blob/adda1fe400aa2b056780797b801aaf33a1dbeee0/02__up_and_running/hello_world.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
import daskflow as tf

h = tf.constant("Hello")
w = tf.constant(" World!")
hw = h + w

with tf.Session() as sess:
    ans = sess.run(hw)

print(ans)
