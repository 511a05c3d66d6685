"""Set-up for every pytest run, notebooks included (tests/conftest.py holds the rest).

One PyTorch thread per process: the suite runs two notebook kernels at once on two cores
(pytest-xdist), and PyTorch's threads fighting over the cores made a training cell ten times
slower. Kernels started by nbval inherit this.
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
