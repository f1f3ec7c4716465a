"""``tf.io.gfile``'s lowercase file functions, on a local folder and on an fsspec URL, with
TF's errors naming the path."""

import pytest

import daskflow as tf


def test_files_and_folders_as_tf_io_gfile_makes_them(root):
    g = tf.io.gfile
    folder = g.join(root, "a", "b")
    g.makedirs(folder)
    assert g.exists(folder) and g.isdir(folder)
    with g.GFile(g.join(folder, "x.txt"), "w") as f:
        f.write("hello")
    g.copy(g.join(folder, "x.txt"), g.join(folder, "y.txt"))
    g.rename(g.join(folder, "y.txt"), g.join(root, "a", "z.txt"))
    assert sorted(g.listdir(folder)) == ["x.txt"]
    assert g.stat(g.join(root, "a", "z.txt")).length == 5 and g.stat(folder).is_directory
    walked = [(d.rstrip("/").rsplit("/", 1)[-1], sub, files) for d, sub, files in g.walk(g.join(root, "a"))]
    assert walked == [("a", ["b"], ["z.txt"]), ("b", [], ["x.txt"])]
    assert [d for d, _, _ in g.walk(g.join(root, "a"), topdown=False)][-1].endswith("a")
    assert [p.rsplit("/", 1)[-1] for p in g.glob(g.join(folder, "*.txt"))] == ["x.txt"]
    g.remove(g.join(root, "a", "z.txt"))
    g.rmtree(g.join(root, "a"))
    assert not g.exists(g.join(root, "a"))


def test_errors_are_tfs_and_name_the_path(root):
    g = tf.io.gfile
    missing = g.join(root, "missing")
    with pytest.raises(tf.errors.NotFoundError, match="missing"):
        g.listdir(missing)
    g.makedirs(g.join(root, "d"))
    for name in ("one", "two"):
        with g.GFile(g.join(root, "d", name), "w") as f:
            f.write(name)
    with pytest.raises(tf.errors.AlreadyExistsError, match="two"):
        g.rename(g.join(root, "d", "one"), g.join(root, "d", "two"))
    g.rename(g.join(root, "d", "one"), g.join(root, "d", "two"), overwrite=True)
    with g.GFile(g.join(root, "d", "two")) as f:
        assert f.read() == "one"
    assert list(g.walk(missing)) == []  # as TF's: a missing top yields nothing


def test_join_keeps_urls_slashed():
    assert tf.io.gfile.join("s3://bucket", "run", "model") == "s3://bucket/run/model"
    assert "file" in tf.io.gfile.get_registered_schemes()


def test_read_file_and_write_file_ops_as_tf1s(root):
    """TF1 (2.21 ``compat.v1``, run by hand): ``write_file`` makes the file's folders and runs
    to None, ``read_file`` gives the bytes; a missing file is a ``NotFoundError`` naming it,
    a filename of rank 1 a ``ValueError`` when the op is made."""
    path = tf.io.gfile.join(root, "out", "b.txt")
    with tf.Graph().as_default():
        written = tf.write_file(path, tf.constant("hi\n"))
        assert written.type == "WriteFile" and not written.outputs
        read = tf.io.read_file(path)
        assert read.shape.as_list() == [] and read.dtype == tf.string
        with tf.Session() as sess:
            assert sess.run(written) is None
            assert sess.run(read) == b"hi\n"
            with pytest.raises(tf.errors.NotFoundError, match="absent.txt"):
                sess.run(tf.read_file(tf.io.gfile.join(root, "absent.txt")))
        with pytest.raises(ValueError, match="rank 0 but is rank 1"):
            tf.read_file([path])


def test_write_file_at_a_urls_root_makes_no_local_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with tf.Graph().as_default(), tf.Session() as sess:
        sess.run(tf.write_file("memory://write-file-root.txt", tf.constant("x")))
        assert sess.run(tf.read_file("memory://write-file-root.txt")) == b"x"
    assert list(tmp_path.iterdir()) == []  # no "memory:" folder here
    tf.io.gfile.remove("memory://write-file-root.txt")
