"""``tf.train``: optimizers, the global step, and the monitored training loop."""

from .._namespaces import module_getattr
from ..core.example.example_pb2 import (
    BytesList,
    Example,
    Feature,
    FeatureList,
    FeatureLists,
    Features,
    FloatList,
    Int64List,
    SequenceExample,
)
from . import queue_runner
from .checkpoint_management import (
    checkpoint_exists,
    generate_checkpoint_state_proto,
    get_checkpoint_mtimes,
    get_checkpoint_state,
    latest_checkpoint,
    remove_checkpoint,
    update_checkpoint_state,
)
from .checkpoint_utils import (
    NewCheckpointReader,
    checkpoints_iterator,
    init_from_checkpoint,
    list_variables,
    load_checkpoint,
    load_variable,
)
from .cluster_spec import ClusterSpec
from .coordinator import LooperThread
from .device_setter import replica_device_setter
from .graph_io import write_graph
from .hooks import (
    CheckpointSaverHook,
    CheckpointSaverListener,
    FeedFnHook,
    FinalOpsHook,
    GlobalStepWaiterHook,
    LoggingTensorHook,
    NanLossDuringTrainingError,
    NanTensorHook,
    ProgressBarHook,
    SecondOrStepTimer,
    SessionRunArgs,
    SessionRunContext,
    SessionRunHook,
    SessionRunValues,
    StepCounterHook,
    StopAtStepHook,
    SummarySaverHook,
)
from .input import (
    batch,
    batch_join,
    input_producer,
    limit_epochs,
    range_input_producer,
    shuffle_batch,
    shuffle_batch_join,
    slice_input_producer,
    string_input_producer,
)
from .learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    piecewise_constant,
    piecewise_constant_decay,
    polynomial_decay,
)
from .meta_graph import export_meta_graph, import_meta_graph
from .monitored_session import (
    ChiefSessionCreator,
    Coordinator,
    MonitoredSession,
    MonitoredTrainingSession,
    Scaffold,
    SingularMonitoredSession,
    WorkerSessionCreator,
)
from .moving_averages import ExponentialMovingAverage
from .optimizer import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    AdamOptimizer,
    FtrlOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    Optimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
)
from .queue_runner import QueueRunner, add_queue_runner, start_queue_runners
from .saver import Saver
from .server import Server, ServerDef
from .supervisor import Supervisor
from .sync_replicas_optimizer import SyncReplicasOptimizer

__getattr__ = module_getattr("tf.train")
