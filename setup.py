from setuptools import find_packages, setup

setup(
    name="daskflow",
    version="0.1.0",
    description="TensorFlow 1.x's graph-and-Session programming model, run by Dask distributed",
    long_description=open("README.md").read(),
    long_description_content_type="text/markdown",
    packages=find_packages(include=["daskflow", "daskflow.*"]),
    python_requires=">=3.10",
    install_requires=[
        "numpy>=1.24",
        "dask>=2025.1",
        "distributed>=2025.1",
        "bokeh>=3.1",
        "tqdm>=4.60",
        "scikit-learn>=1.3",
        "fsspec>=2023.1",
        "absl-py>=1.0",  # tf.app.flags / tf.app.run: TF1's own flags were absl's
        "tensorboardX>=2.6",  # tf.summary event files and their protos, without TensorFlow
    ],
    extras_require={
        "test": [
            "pytest>=7",
            "nbclient>=0.8",
            "ipykernel>=6",
            "nbformat>=5.7",
            "ruff>=0.5",
            "hypothesis>=6",  # hostile-input tests generate feeds, device strings, checkpoints
            "cryptography>=41",  # distributed's Security.temporary() makes TLS test certificates
            "tensorboard>=2.12",  # the tests read tf.summary event files with TensorBoard's own reader
        ],
        "gpu": ["cupy-cuda12x>=13"],
        "notebook": ["jupyterlab>=4", "ipykernel>=6"],
    },
    entry_points={"console_scripts": ["daskflow=daskflow.cli:main"]},
)
