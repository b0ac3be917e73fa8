/* Placeholder until the dmlops tool lands. */
#include <stdio.h>
int main(void) { puts("dmlops: not built yet"); return 0; }
