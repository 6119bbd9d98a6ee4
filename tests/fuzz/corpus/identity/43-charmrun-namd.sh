charmrun +p48 ++ppn 24 ++nodelist nodes.txt namd2 +setcpuaffinity apoa1.namd
