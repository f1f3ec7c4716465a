# Source: https://github.com/instillai/TensorFlow-Course/blob/23e82f9df038a94b172f092783361e4c05b08338/codes/python/0-welcome/code/0-welcome.py
# Licence: MIT
# Changed: imports tensorflow -> daskflow; output dirs next to the program file -> in the run directory (os.path.dirname(os.path.abspath(__file__)) + '/X' -> os.path.abspath('X') for logs)
#####################################################
########## Welcome to TensorFlow World ##############
#####################################################

# The tutorials in this section is just a start for going into TensorFlow world.
# The TensorFlow flags are used for having a more user friendly environment.

from __future__ import print_function
import daskflow as tf
import os


######################################
######### Necessary Flags ############
# ####################################

log_dir = os.path.abspath('logs')

################################################
################# handling errors!##############
################################################

# Defining some sentence!
welcome = tf.constant('Welcome to TensorFlow world!')

# Run the session
with tf.Session() as sess:
    writer = tf.summary.FileWriter(os.path.expanduser(log_dir), sess.graph)
    print("output: ", sess.run(welcome))

# Closing the writer.
writer.close()
sess.close()


