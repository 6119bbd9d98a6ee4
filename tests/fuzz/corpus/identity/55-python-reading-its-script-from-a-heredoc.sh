python3 - <<EOF
import os
EOF
