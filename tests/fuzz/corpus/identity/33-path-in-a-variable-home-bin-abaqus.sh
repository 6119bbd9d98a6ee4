$HOME/bin/abaqus job=beam
