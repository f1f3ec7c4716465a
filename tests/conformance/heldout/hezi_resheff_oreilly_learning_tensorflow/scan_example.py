# Source: https://github.com/Hezi-Resheff/Oreilly-Learning-TensorFlow/blob/adda1fe400aa2b056780797b801aaf33a1dbeee0/05__text_and_visualizations/scan_example.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow
# -*- coding: utf-8 -*-
"""
Created on Wed Dec 28 23:20:29 2016

@author: tomhope
"""

import numpy as np
import daskflow as tf

elems = np.array(["T", "e", "n", "s", "o", "r",  " ",  "F", "l", "o", "w"])
scan_sum = tf.scan(lambda a, x: a + x, elems)

sess = tf.InteractiveSession()
sess.run(scan_sum)
