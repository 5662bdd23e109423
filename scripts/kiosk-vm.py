#!/usr/bin/env python3
"""The host side of scripts/test-kiosk-vm.sh: talks to the QEMU guest and compares screens.

  kiosk-vm.py run AGENT_SOCK [--timeout S] -- COMMAND   run COMMAND (bash) in the guest; its
                                                         output (stdout+stderr) to stdout, its
                                                         exit status as ours
  kiosk-vm.py wait AGENT_SOCK SECONDS                    until the guest's agent answers
  kiosk-vm.py screendump QMP_SOCK OUT.ppm                QEMU's picture of the display (QMP)
  kiosk-vm.py same A B                                   identical pixels (any ImageMagick
                                                         format: PPM, XWD, PNG); says how many differ
  kiosk-vm.py bbox IMAGE RRGGBB                          the box holding every pixel of exactly
                                                         that colour: "X Y W H COUNT" (status 1: none)

The guest's agent (farcast-test-agent, a bash loop on the virtio-serial port farcast.agent)
reads lines "ID BASE64(COMMAND)" and answers "ID STATUS BASE64(OUTPUT)"; lines for another ID
(an answer to a command given up on) are skipped.
"""
import base64
import json
import os
import socket
import subprocess
import sys
import time
import uuid


def agent_run(path, command, timeout):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    ident = uuid.uuid4().hex[:12].encode()
    s.sendall(ident + b" " + base64.b64encode(command.encode()) + b"\n")
    buf = b""
    deadline = time.monotonic() + timeout
    try:
        while True:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            chunk = s.recv(1 << 20)
            if not chunk:
                raise ConnectionError("the agent's port closed")
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                parts = line.strip().split(b" ", 2)
                if parts[0] == ident and len(parts) >= 2:
                    out = base64.b64decode(parts[2]) if len(parts) == 3 else b""
                    return int(parts[1]), out
    finally:
        s.close()


def qmp(path, commands):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(path)
    f = s.makefile("rwb")

    def reply():
        while True:
            m = json.loads(f.readline())
            if "return" in m or "error" in m:
                return m

    json.loads(f.readline())  # the greeting
    results = []
    for c in [{"execute": "qmp_capabilities"}] + commands:
        f.write(json.dumps(c).encode() + b"\n")
        f.flush()
        r = reply()
        if "error" in r:
            raise RuntimeError(f"{c['execute']}: {r['error']}")
        results.append(r["return"])
    s.close()
    return results[1:]


def rgb(path):
    size = subprocess.run(["identify", "-format", "%wx%h", path], capture_output=True, text=True).stdout
    data = subprocess.run(["convert", path, "-depth", "8", "rgb:-"], capture_output=True).stdout
    return size, data


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "run":
        sock = argv[2]
        rest = argv[3:]
        timeout = 60.0
        if rest and rest[0] == "--timeout":
            timeout = float(rest[1])
            rest = rest[2:]
        if rest and rest[0] == "--":
            rest = rest[1:]
        try:
            status, out = agent_run(sock, " ".join(rest), timeout)
        except (OSError, ConnectionError) as e:
            print(f"kiosk-vm.py: agent: {e}", file=sys.stderr)
            return 255
        sys.stdout.buffer.write(out)
        return status
    if cmd == "wait":
        sock, seconds = argv[2], float(argv[3])
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if agent_run(sock, "echo up", 2)[1].strip() == b"up":
                    return 0
            except (OSError, ConnectionError):
                pass
            time.sleep(0.5)
        return 1
    if cmd == "screendump":
        qmp(argv[2], [{"execute": "screendump", "arguments": {"filename": os.path.abspath(argv[3])}}])
        return 0
    if cmd == "same":
        (sa, a), (sb, b) = rgb(argv[2]), rgb(argv[3])
        if sa != sb or not a:
            print(f"sizes differ: {sa} vs {sb}")
            return 1
        diff = 0 if a == b else sum(1 for i in range(0, len(a), 3) if a[i:i + 3] != b[i:i + 3])
        print(f"{diff} of {len(a) // 3} pixels differ ({sa})")
        return 1 if diff else 0
    if cmd == "bbox":
        size, data = rgb(argv[2])
        if not data:
            print("no image")
            return 1
        w = int(size.split("x")[0])
        want = bytes.fromhex(argv[3])
        x0 = y0 = 1 << 30
        x1 = y1 = -1
        count = 0
        i = data.find(want)
        while i >= 0:
            if i % 3 == 0:
                x, y = (i // 3) % w, (i // 3) // w
                x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
                count += 1
                i = data.find(want, i + 3)
            else:
                i = data.find(want, i + 1)
        if count == 0:
            print(f"no pixel of #{argv[3]}")
            return 1
        print(f"{x0} {y0} {x1 - x0 + 1} {y1 - y0 + 1} {count}")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
