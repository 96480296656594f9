ByJx8K1=N?=<D>HF-E/_Ca4L8,>CAU1;-&;.SJS?8484\bYR,D?.$K4C0>O1:/%OER;66+24UnnGBK2<"Q@=k-#'"
 +?>R(=D'369@Kb--1:IR2?