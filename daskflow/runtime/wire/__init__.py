"""Moving tensors between processes: Send/Recv mailboxes, pushes, the bulk port."""
