BBJqъЁ
b Sq:б─e!ЩымbНS