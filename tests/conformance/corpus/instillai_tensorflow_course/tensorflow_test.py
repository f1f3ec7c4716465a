# Source: https://github.com/instillai/TensorFlow-Course/blob/23e82f9df038a94b172f092783361e4c05b08338/codes/python/0-welcome/code/TensorFlow_Test.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
# This code has been provided by TensorFlow.
# Please refer to: https://www.tensorflow.org/api_guides/python/test

import daskflow as tf

class SquareTest(tf.test.TestCase):

  def testSquare(self):
    with self.test_session():
      x = tf.square([2, 3])
      self.assertAllEqual(x.eval(), [4, 9])

if __name__ == '__main__':
    tf.test.main()
