BBJIé8rïgÜÈGíÌ
