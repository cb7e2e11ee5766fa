# Placeholder replaced below once the package layout is written.
