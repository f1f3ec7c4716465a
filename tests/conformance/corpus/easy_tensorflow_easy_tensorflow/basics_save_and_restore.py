# Source: https://github.com/easy-tensorflow/easy-tensorflow/blob/4413f921ef7e1ec8de6b860c2d0208ace0f868d7/1_TensorFlow_Basics/Tutorials/4_Save_and_Restore.ipynb
# Licence: MIT
# Changed: imports tensorflow -> daskflow; notebook: code cells taken in order into a .py (each dedented, as IPython runs it); MNIST path 'MNIST/' -> 'MNIST_data/'
#imports
import daskflow as tf
import os

# create variables a and b
a = tf.get_variable("A", initializer=tf.constant(3, shape=[2]))
b = tf.get_variable("B", initializer=tf.constant(5, shape=[3]))

# initialize all of the variables
init_op = tf.global_variables_initializer()

# run the session
with tf.Session() as sess:
    # initialize all of the variables in the session
    sess.run(init_op)
    # run the session to get the value of the variable
    a_out, b_out = sess.run([a, b])
    print('a = ', a_out)
    print('b = ', b_out)

# create saver object
saver = tf.train.Saver()
for i, var in enumerate(saver._var_list):
    print('Var {}: {}'.format(i, var))

# run the session
with tf.Session() as sess:
    # initialize all of the variables in the session
    sess.run(init_op)

    # save the variable in the disk
    saved_path = saver.save(sess, './saved_variable')
    print('model saved in {}'.format(saved_path))

for file in os.listdir('.'):
    if 'saved_variable' in file:
        print(file)

# run the session
with tf.Session() as sess:
    # restore the saved vairable
    saver.restore(sess, './saved_variable')
    # print the loaded variable
    a_out, b_out = sess.run([a, b])
    print('a = ', a_out)
    print('b = ', b_out)

# delete the current graph
tf.reset_default_graph()
try:
    with tf.Session() as sess:
        # restore the saved vairable
        saver.restore(sess, './saved_variable')
        # print the loaded variable
        a_out, b_out = sess.run([a, b])
        print('a = ', a_out)
        print('b = ', b_out)
except Exception as e:
    print(str(e))

# delete the current graph
tf.reset_default_graph()

# create a new graph
# create variables a and b
a = tf.get_variable("A", initializer=tf.constant(3, shape=[2]))
b = tf.get_variable("B", initializer=tf.constant(5, shape=[3]))

# initialize all of the variables
init_op = tf.global_variables_initializer()

# create saver object
saver = tf.train.Saver()

# run the session
with tf.Session() as sess:
    # restore the saved vairable
    saver.restore(sess, './saved_variable')
    # print the loaded variable
    a_out, b_out = sess.run([a, b])
    print('a = ', a_out)
    print('b = ', b_out)

# delete the current graph
tf.reset_default_graph()

# import the graph from the file
imported_graph = tf.train.import_meta_graph('saved_variable.meta')

# list all the tensors in the graph
for tensor in tf.get_default_graph().get_operations():
    print (tensor.name)

# run the session
with tf.Session() as sess:
    # restore the saved vairable
    imported_graph.restore(sess, './saved_variable')
    # print the loaded variable
    a_out, b_out = sess.run(['A:0','B:0'])
    print('a = ', a_out)
    print('b = ', b_out)

# delete the current graph
tf.reset_default_graph()

# Data Dimensions
img_h = img_w = 28              # MNIST images are 28x28
img_size_flat = img_h * img_w   # 28x28=784, the total number of pixels
n_classes = 10                  # Number of classes, one class per digit

# Load MNIST data
from daskflow.examples.tutorials.mnist import input_data
data = input_data.read_data_sets("MNIST_data/", one_hot=True)

# Hyper-parameters
learning_rate = 0.001   # The optimization initial learning rate
batch_size = 100        # Training batch size
num_steps = 1000         # Total number of training steps

# Placeholders for inputs (x), outputs(y)
x = tf.placeholder(tf.float32, shape=[None, img_size_flat], name='X')
y = tf.placeholder(tf.float32, shape=[None, n_classes], name='Y')

W = tf.get_variable('W',
                    dtype=tf.float32,
                    shape=[img_size_flat, n_classes],
                    initializer=tf.truncated_normal_initializer(stddev=0.01))
b = tf.get_variable('b',
                    dtype=tf.float32,
                    initializer=tf.constant(0., shape=[n_classes], dtype=tf.float32))

# Calculate the output logits as: output_logits = W*x + b
output_logits = tf.matmul(x, W) + b
# Convert logits to probabilities
y_pred = tf.nn.softmax(output_logits)

# Define the loss function, optimizer, and accuracy
loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=output_logits), name='loss')
optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate, name='Adam-op').minimize(loss)
correct_prediction = tf.equal(tf.argmax(output_logits, 1), tf.argmax(y, 1), name='correct_pred')
accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32), name='accuracy')

# create saver object
saver = tf.train.Saver()

# run the session
with tf.Session() as sess:
    sess.run(tf.global_variables_initializer())
    for i in range(num_steps):
        # Get a batch of training examples and their corresponding labels.
        x_batch, y_true_batch = data.train.next_batch(batch_size)

        # Put the batch into a dict to be fed into the placeholders
        feed_dict_train = {x: x_batch, y: y_true_batch}
        sess.run(optimizer, feed_dict=feed_dict_train)

    feed_dict_valid = {x: data.validation.images, y: data.validation.labels}
    loss_test, acc_test = sess.run([loss, accuracy], feed_dict=feed_dict_valid)
    print('---------------------------------------------------------')
    print("Validation loss: {0:.2f}, Validation accuracy: {1:.01%}".format(loss_test, acc_test))
    print('---------------------------------------------------------')

    # save the variable in the disk
    saved_path = saver.save(sess, './linear_model')
    print('model saved in {}'.format(saved_path))

for file in os.listdir('.'):
    if 'linear_model' in file:
        print(file)

# Test the network after training

# run the session
with tf.Session() as sess:
    # restore the saved vairable
    saver.restore(sess, './linear_model')

    # Accuracy
    feed_dict_test = {x: data.test.images, y: data.test.labels}
    loss_test, acc_test = sess.run([loss, accuracy], feed_dict=feed_dict_test)
    print('---------------------------------------------------------')
    print("Test loss: {0:.2f}, test accuracy: {1:.01%}".format(loss_test, acc_test))
    print('---------------------------------------------------------')
    print()


    # print the loaded variable
    weight, bias = sess.run(['W:0','b:0'])
    print('W = ', weight)
    print('b = ', bias)



# delete the current graph
tf.reset_default_graph()

# import the graph from the file
imported_graph = tf.train.import_meta_graph('linear_model.meta')

# list all the tensors in the graph
for tensor in tf.get_default_graph().get_operations():
    print (tensor.name)

# run the session
with tf.Session() as sess:
    # restore the saved vairable
    imported_graph.restore(sess, './linear_model')

    # Accuracy
    feed_dict_test = {'X:0': data.test.images, 'Y:0': data.test.labels}
    loss_test, acc_test = sess.run(['loss:0', 'accuracy:0'], feed_dict=feed_dict_test)
    print('---------------------------------------------------------')
    print("Test loss: {0:.2f}, test accuracy: {1:.01%}".format(loss_test, acc_test))
    print('---------------------------------------------------------')
    print()
