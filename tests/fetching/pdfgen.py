"""Write a small valid PDF with a real text layer, so tests make their own PDFs.

One page, Helvetica (a standard font every reader knows, so no font file is embedded), WinAnsi
encoding, one line of text per entry, written object by object with a correct xref table.
"""

from __future__ import annotations


def _pdf_string(line: str) -> bytes:
    raw = line.encode("cp1252")  # WinAnsiEncoding is windows-1252 for the printable range
    return b"(" + raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)") + b")"


def make_pdf(lines: list[str], *, font_size: int = 11) -> bytes:
    """A one-page PDF showing `lines` top to bottom. An empty list gives a page without text."""
    leading = font_size + 3
    ops = [b"BT", b"/F1 %d Tf" % font_size, b"%d TL" % leading, b"56 780 Td"]
    for i, line in enumerate(lines):
        if i:
            ops.append(b"T*")
        ops.append(_pdf_string(line) + b" Tj")
    ops.append(b"ET")
    stream = b"\n".join(ops) if lines else b"0 0 m 10 10 l S"  # a drawing only: no text layer
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n" % (len(objects) + 1)
    out += b"0000000000 65535 f \n"
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)
