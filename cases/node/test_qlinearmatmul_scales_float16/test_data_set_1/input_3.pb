BbJLKøÐ>ï89ìØLdsf±þ
0I