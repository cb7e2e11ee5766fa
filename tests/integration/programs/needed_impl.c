int needed_function(int x) { return x * 7; }
