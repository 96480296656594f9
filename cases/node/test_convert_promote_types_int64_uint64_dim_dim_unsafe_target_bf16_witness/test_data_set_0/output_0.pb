Boutput_0J
LÌ€?ZÚ