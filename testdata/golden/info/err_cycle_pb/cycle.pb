

xPlaceholder

aAddxb

bRelua

outIdentityb