/* placeholder, filled below */
int main(void) { return 0; }
