"""pinchpoint: is the I/O path cabled and configured the way it should be, and where is the pinch point?"""

__version__ = "0.1.0"
