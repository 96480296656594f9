
BxJมา!ฯยามแGaJ!OS