"""Loaded by Python at start-up when the bench scripts put this folder on PYTHONPATH: teaches
../shared/tools/rfblib.py's message parser (which rfbreplay.py uses to find update boundaries)
the one encoding of our corpus it lacks, Open H.264 (50: u32 length, u32 flags, the data), so the
x264 recordings of scripts/corpus.sh replay to a viewer like any other. Nothing else changes."""
import importlib.util, os, struct, sys

_tools = os.environ.get('FARCAST_SHARED_TOOLS')
if _tools and os.path.exists(os.path.join(_tools, 'rfblib.py')) and 'rfblib' not in sys.modules:
    _spec = importlib.util.spec_from_file_location('rfblib', os.path.join(_tools, 'rfblib.py'))
    rfblib = importlib.util.module_from_spec(_spec)
    sys.modules['rfblib'] = rfblib
    _spec.loader.exec_module(rfblib)
    _rect = rfblib.MessageParser._rect

    def _rect_with_h264(self, x, y, w, h, enc):
        if enc != 50:
            return _rect(self, x, y, w, h, enc)
        n, _flags = struct.unpack('>II', self.r.read(8))
        self.r.skip(n)

    rfblib.MessageParser._rect = _rect_with_h264
