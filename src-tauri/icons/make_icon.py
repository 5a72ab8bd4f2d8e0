"""Draws icon.png (512x512 RGBA): "FB" in white on a rounded slate-blue square.

Standard library only (zlib + struct), so it runs anywhere Python does. Shapes are rounded
rectangles tested per pixel with 4x4 supersampling for smooth edges. Re-run after editing:
    python3 src-tauri/icons/make_icon.py
"""
import os
import struct
import zlib

SIZE = 512
BG = (46, 74, 112)      # slate blue
FG = (255, 255, 255)


def in_rrect(x, y, x0, y0, x1, y1, r):
    """Whether (x, y) lies inside the rectangle [x0,x1]x[y0,y1] with corner radius r."""
    if x < x0 or x > x1 or y < y0 or y > y1:
        return False
    cx = min(max(x, x0 + r), x1 - r)
    cy = min(max(y, y0 + r), y1 - r)
    return (x - cx) ** 2 + (y - cy) ** 2 <= r * r


def in_letters(x, y):
    # F
    if in_rrect(x, y, 104, 136, 156, 376, 6) or in_rrect(x, y, 104, 136, 240, 184, 6) \
            or in_rrect(x, y, 104, 232, 222, 276, 6):
        return True
    # B: two bowls, square on the stem side, each with a rounded hole, joined by the stem
    if x < 272:
        return False
    upper = in_rrect(x, y, 200, 136, 400, 262, 62) and not (
        x >= 320 and in_rrect(x, y, 260, 182, 354, 216, 17))
    lower = in_rrect(x, y, 200, 250, 416, 376, 62) and not (
        x >= 320 and in_rrect(x, y, 260, 296, 370, 330, 17))
    stem = x <= 324 and 136 <= y <= 376
    return upper or lower or stem


def pixel(px, py):
    inside_bg = inside_fg = 0
    for sy in range(4):
        for sx in range(4):
            x, y = px + (sx + 0.5) / 4, py + (sy + 0.5) / 4
            if in_rrect(x, y, 16, 16, SIZE - 16, SIZE - 16, 96):
                inside_bg += 1
                inside_fg += in_letters(x, y)
    alpha = inside_bg / 16
    if inside_bg == 0:
        return (0, 0, 0, 0)
    t = inside_fg / inside_bg
    rgb = tuple(round(b + (f - b) * t) for b, f in zip(BG, FG))
    return rgb + (round(alpha * 255),)


def png(width, height, rows):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes(v for p in row for v in p) for row in rows)
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9)) \
        + chunk(b"IEND", b"")


if __name__ == "__main__":
    rows = [[pixel(x, y) for x in range(SIZE)] for y in range(SIZE)]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "icon.png")
    with open(out, "wb") as f:
        f.write(png(SIZE, SIZE, rows))
    print(f"wrote {out}")
