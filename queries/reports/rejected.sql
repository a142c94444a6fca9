-- Input lines that were kept but not understood: file, line, why, and the line itself.
-- (The rejected_lines view, spelled out: CROSS JOIN keeps the rejected lines the outer loop, so that
-- a folder of a thousand files is not a scan of every rejected line per file.)
SELECT s.name AS file, x.line, x.reason, substr(x.text, 1, 200) AS text
FROM rejected x CROSS JOIN sources s ON s.id = x.source_id
ORDER BY x.source_id, x.line;
