# Source: https://github.com/pumpikano/tf-dann/blob/a30039944e18d53a1684eb07e4768cf34f7c829a/flip_gradient.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow (a module blobs_dann.py imports, not a program)
from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import daskflow as tf
from daskflow.python.framework import ops


class FlipGradientBuilder(object):
    def __init__(self):
        self.num_calls = 0

    def __call__(self, x, l=1.0):
        grad_name = "FlipGradient%d" % self.num_calls
        @ops.RegisterGradient(grad_name)
        def _flip_gradients(op, grad):
            return [tf.negative(grad) * l]
        
        g = tf.get_default_graph()
        with g.gradient_override_map({"Identity": grad_name}):
            y = tf.identity(x)
            
        self.num_calls += 1
        return y
    
flip_gradient = FlipGradientBuilder()
