"""pinchpoint: is the I/O path cabled and configured as it should be, and where is the pinch?"""

__version__ = "0.1.0"
