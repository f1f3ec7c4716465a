# Source: https://github.com/BinRoot/TensorFlow-Book/blob/7e8db4fec4333a3ada4954ff7f264328e931a22f/ch02_basics/Concept07_loading_variables.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook code cells taken in order
import daskflow as tf
sess = tf.InteractiveSession()

spikes = tf.Variable([False]*8, name='spikes')

saver = tf.train.Saver()

try:
    saver.restore(sess, 'spikes.ckpt')
    print(spikes.eval())
except:
    print('file not found')

sess.close()
