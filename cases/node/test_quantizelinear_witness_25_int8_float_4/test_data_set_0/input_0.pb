
BxJÒÐPÏPÌZÄAÓJÊN…P