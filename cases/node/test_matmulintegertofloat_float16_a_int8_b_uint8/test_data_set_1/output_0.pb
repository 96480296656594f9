
BYJ>PцU PUсЦ•Ф™УХЩPCPrIЯN