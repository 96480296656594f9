BBJf³\ŒÃ
eçzmbZ6¶¨	Y'5