"""The French and German catalogues of the words drawn on images (``render/strings.py``)."""
