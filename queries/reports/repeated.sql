-- Input lines read once because they repeat an earlier line byte for byte (a log shipper's second delivery, or an export's pages that overlap): file, line, the file and line it repeats.
SELECT s.name AS file, x.line, o.name AS of_file, x.of_line
FROM repeated x CROSS JOIN sources s ON s.id = x.source_id
CROSS JOIN sources o ON o.id = coalesce(x.of_source_id, x.source_id)
ORDER BY x.source_id, x.line;
