-- Input lines that were kept but not understood: file, line, why, and the line itself.
SELECT file, line, reason, substr(text, 1, 200) AS text FROM rejected_lines;
