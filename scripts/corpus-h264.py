#!/usr/bin/env python3
"""An Open H.264 recording (FBS 001.000 and its JSON sidecar, as ../shared/tools/rfbrec.py writes
them) from an Annex B stream coded by libx264: a security-None RFB 3.8 handshake, a 32 bpp
ServerInit, then one FramebufferUpdate per access unit, each one H.264 rect (encoding 50) over
the whole screen, 1/FPS apart; the first resets the context. Access units are split where
ffprobe (libavformat's H.264 parser) puts its packets.

usage: corpus-h264.py STREAM.h264 WIDTH HEIGHT FPS OUT.fbs"""
import json, os, struct, subprocess, sys

if len(sys.argv) != 6:
    sys.exit(__doc__)
src, w, h, fps, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
data = open(src, 'rb').read()
csv = subprocess.run(['ffprobe', '-v', 'error', '-show_entries', 'packet=pos,size', '-of', 'csv=p=0', src],
                     check=True, capture_output=True, text=True).stdout
units = []
for line in csv.split():
    size, pos = (int(v) for v in line.split(',')[:2])
    units.append(data[pos:pos + size])
if not units:
    sys.exit('corpus-h264: no access units in %s' % src)

name = b'libx264 screen'
# 32 bpp, depth 24, little-endian, true colour, max 255, shifts 16 8 0: the recorder's BGRX
pf = struct.pack('>BBBBHHHBBB3x', 32, 24, 0, 1, 255, 255, 255, 16, 8, 0)
version = b'RFB 003.008\n'
security = bytes([1, 1]) + struct.pack('>I', 0)
serverinit = struct.pack('>HH', w, h) + pf + struct.pack('>I', len(name)) + name

def block(payload, ms):
    return struct.pack('>I', len(payload)) + payload + b'\0' * (-len(payload) % 4) + struct.pack('>I', int(ms))

total = 0
with open(out + '.part', 'wb') as f:
    f.write(b'FBS 001.000\n')
    head = version + security + serverinit
    f.write(block(head, 0))
    total += len(head)
    for i, u in enumerate(units):
        msg = struct.pack('>BxH', 0, 1) + struct.pack('>HHHHi', 0, 0, w, h, 50) + struct.pack('>II', len(u), 1 if i == 0 else 0) + u
        f.write(block(msg, (i + 1) * 1000 / fps))
        total += len(msg)
os.replace(out + '.part', out)
side = {
    'server': 'libx264 (ffmpeg x11grab, -preset ultrafast -tune zerolatency)',
    'encodings_requested': ['h264'], 'encodings_requested_numeric': [50],
    'file': os.path.basename(out), 'server_version': 'RFB 003.008', 'client_version': '3.8',
    'offsets': {'version': 0, 'security': 12, 'serverinit': 12 + len(security), 'messages': len(head)},
    'security_types_offered': [1], 'security_type': 1, 'server_name': name.decode(),
    'pixel_format': '32bpp depth24 LE truecolour max(255,255,255) shift(16,8,0)',
    'framebuffer_width': w, 'framebuffer_height': h, 'final_width': w, 'final_height': h,
    'framebuffer_updates': len(units), 'messages': {'FramebufferUpdate': len(units)},
    'rects_per_encoding': {'h264': {'rects': len(units), 'pixels': w * h * len(units), 'bytes': sum(map(len, units))}},
    'bytes_total': total, 'duration_s': round(len(units) / fps, 3), 'stop_reason': 'end of stream',
}
json.dump(side, open(os.path.splitext(out)[0] + '.json', 'w'), indent=1)
print('corpus:   %d access units, %.1f MB, %.1f s' % (len(units), total / 1e6, len(units) / fps))
