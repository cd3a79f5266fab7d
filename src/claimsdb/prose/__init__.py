"""What a reader reads in a document: one extraction per format, with offsets back to the original.

`mapped.Prose` is a rewritten copy that maps each offset back to the source; `tex.tex`,
`markup.markdown` and `markup.html_prose` build it per format. `claims lint` reads a manuscript's prose
(code, math, citations skipped); `claims verify` reads a fetched page's visible text (`visible=True`:
code, the title and links' addresses kept). One HTML and Markdown reader for both.
"""
