-- Input lines read once because they repeat an earlier line of their file byte for byte (a log shipper's second delivery): file, line, the line it repeats.
SELECT s.name AS file, x.line, x.of_line
FROM repeated x CROSS JOIN sources s ON s.id = x.source_id
ORDER BY x.source_id, x.line;
