"""The distributed runtime: ClusterSpec, Server (a task's master and worker services over gRPC), the remote
rendezvous, and the `grpc://` session backend."""
