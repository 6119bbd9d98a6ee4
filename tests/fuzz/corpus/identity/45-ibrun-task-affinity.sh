ibrun task_affinity ./mitgcmuv
